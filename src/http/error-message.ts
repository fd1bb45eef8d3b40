// A schema may say in its own words what a failing value needs, where the failing
// keyword's message would say less (`page` fails as a type, a minimum or a maximum,
// and the Rules API's specification answers all three "page must be an integer ≥ 0").

/** Schema option: the message after the field's name when the value fails this schema. */
export const ERROR_MESSAGE = 'x-error-message';

/** `{ [ERROR_MESSAGE]: message }`, to spread into a schema's options. */
export function errorMessage(message: string): Record<string, string> {
  return { [ERROR_MESSAGE]: message };
}

/** The schema's own message for a failure in it, if it has one. */
export function ownErrorMessage(parentSchema: unknown): string | undefined {
  const message = (parentSchema as Record<string, unknown> | undefined)?.[ERROR_MESSAGE];
  return typeof message === 'string' ? message : undefined;
}
