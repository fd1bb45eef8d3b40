/**
 * A validator's JSON pointer as the error body names fields:
 * `/pinnedValues/0/position` → `pinnedValues[0].position`, `/0/count` → `[0].count`.
 * Both validators (Fastify's Ajv and the rules' TypeBox) report through it.
 */
export function fieldName(pointer: string, base = ''): string {
  let field = base;
  for (const raw of pointer.split('/').slice(1)) {
    if (raw === '') continue;
    const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    field = /^\d+$/.test(part) ? `${field}[${part}]` : field === '' ? part : `${field}.${part}`;
  }
  return field;
}
