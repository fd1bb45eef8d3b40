// Some existing clients send numbers and booleans as strings ("3000", "true"); a schema that
// must take them says so, and the body validator turns them into what they stand for.
import type AjvCompiler from '@fastify/ajv-compiler';

/** Schema option of an object: its integer, number and boolean members may come as strings. */
export const SCALAR_STRINGS = 'x-scalar-strings';

type Parse = (text: string) => number | boolean | undefined;

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

// Only the plain spellings: " 3000", "3e3" for an integer, "yes" stay strings and fail as such.
const parsers: Record<string, Parse> = {
  integer: (text) => (INTEGER.test(text) ? finite(Number(text)) : undefined),
  number: (text) => (NUMBER.test(text) ? finite(Number(text)) : undefined),
  boolean: (text) => (text === 'true' ? true : text === 'false' ? false : undefined),
};

function finite(value: number): number | undefined {
  return Number.isFinite(value) ? value : undefined;
}

interface ObjectSchema {
  properties?: Record<string, { type?: unknown }>;
}

/**
 * Ajv plugin of the `x-scalar-strings` keyword. It runs on the object before its members are
 * checked, so the converted values then meet their own schema, bounds included.
 */
export function scalarStrings(ajv: AjvCompiler.Ajv): AjvCompiler.Ajv {
  return ajv.addKeyword({
    keyword: SCALAR_STRINGS,
    type: 'object',
    schemaType: 'boolean',
    modifying: true,
    before: 'properties',
    compile(enabled: boolean, parentSchema) {
      const members = Object.entries((parentSchema as ObjectSchema).properties ?? {}).flatMap(
        ([name, member]) => {
          const parse = typeof member.type === 'string' ? parsers[member.type] : undefined;
          return enabled && parse ? [{ name, parse }] : [];
        },
      );
      return (data: Record<string, unknown>) => {
        for (const { name, parse } of members) {
          const value = data[name];
          if (typeof value !== 'string') continue;
          const parsed = parse(value);
          if (parsed !== undefined) data[name] = parsed;
        }
        return true;
      };
    },
  });
}
