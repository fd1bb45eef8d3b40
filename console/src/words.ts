// The merchandiser's words for what the API names for programs: the types of rules and
// rewrites, counts, who made a change, and the API's validation messages.

/**
 * A refusal as far as these words read it: the common error body (the console's ErrorBody),
 * written out so this file imports nothing (its tests run without the browser's types).
 */
interface ErrorBody {
  message?: string;
  errors?: { field: string; message: string }[];
}

/** "1 rule", "2 rules" (the plural given when it is not the singular with an s). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** What each type of rule and rewrite is called in the console. */
export const TYPE_LABELS: Record<string, string> = {
  blockList: 'Block list',
  boostList: 'Boost',
  buryList: 'Bury',
  pinned: 'Pin products',
  redirect: 'Redirect',
  banner: 'Banner',
  filterList: 'Filter list',
  boostAttributes: 'Boost or bury by attribute',
  setParams: 'Solr parameters',
  responseValue: 'Data for the page',
  setFacetList: 'Facet order',
  synonym: 'Synonyms',
  misspelling: 'Misspelling',
  phrase: 'Phrase',
  headTail: 'Head and tail',
  removeWords: 'Remove words',
};

/** A type's label (the API's name when the console has none for it, in any case). */
export function typeLabel(type: string): string {
  return (
    TYPE_LABELS[type] ??
    Object.entries(TYPE_LABELS).find(([name]) => name.toLowerCase() === type.toLowerCase())?.[1] ??
    type
  );
}

/**
 * Who made a change, one spelling per person: the first user is `admin` whether the change
 * went through the Administrative API (`admin`) or the Rules API with a session
 * (`user:admin`); other users by their name; API clients by theirs, said to be one.
 */
export function actorName(actor: string): string {
  if (actor === 'admin' || actor === 'user:admin') return 'admin';
  if (actor.startsWith('user:')) return actor.slice('user:'.length);
  if (actor.startsWith('client:')) return `${actor.slice('client:'.length)} (API client)`;
  if (actor === 'system') return 'searchdeck (scheduled job)';
  return actor;
}

/** The actor a typed name filters the history by: a user by their name, a client as `client:<name>`. */
export function actorFilter(typed: string): string {
  const name = typed.trim();
  if (name === '' || name === 'admin' || name === 'system' || name.includes(':')) return name;
  return `user:${name}`;
}

const RULES: [RegExp, (match: RegExpMatchArray, label: string) => string][] = [
  [/must not be empty$/, (_m, label) => `${label} cannot be empty.`],
  [/is required$/, (_m, label) => `${label} is needed.`],
  [/must not be blank$/, (_m, label) => `${label} is needed.`],
  [/must be an? (number|integer)$/, () => 'Enter a number, such as 10.'],
  [/must be an? (string|array|object|boolean)$/, (_m, label) => `${label} is not in the right form.`],
  [/must be an absolute http or https URL$/, () => 'Enter a full web address, starting with https://.'],
  [/must be an ISO 8601 date-time/, () => 'Enter a date and time.'],
  [/must have at least (\d+) characters?$/, (m) => `Use at least ${m[1]} characters.`],
  [/must have at most (\d+) characters?$/, (m) => `Use at most ${m[1]} characters.`],
  [/must have at least (\d+) items?$/, (m) => `Enter at least ${m[1]}.`],
  [/must have at most (\d+) items?$/, (m) => `Enter at most ${m[1]}.`],
  [/must be ≥ (\S+)$/, (m) => `Enter ${m[1]} or more.`],
  [/must be ≤ (\S+)$/, (m) => `Enter ${m[1]} or less.`],
  [/must be > (\S+)$/, (m) => `Enter more than ${m[1]}.`],
  [/must be one of (.+)$/, (m) => `Choose one of: ${m[1]}.`],
  [/must not repeat a term$/, () => 'A term is there twice: remove the repeat.'],
  [/must differ from the misspelling$/, () => 'The correction must be another word than the misspelling.'],
  [/must differ from the query$/, () => 'The head must be another word than the query.'],
  [/must have at least 2 words$/, () => 'A phrase needs at least two words.'],
  [/must not repeat the input$/, () => 'A synonym repeats the input: remove it.'],
  [
    /must be after effectiveStart$|must not be before effectiveStart$/,
    () => 'The end must come after the start.',
  ],
  [/must not be 0$/, () => 'Enter a number other than 0.'],
  [/needs fieldName and value, or a query$/, () => 'Enter an attribute and its value, or a filter.'],
  [
    /takes fieldName and value, or a query, not both$/,
    () => 'Enter an attribute and its value, or a filter, not both.',
  ],
  [
    /must be one filter: /,
    () => 'Enter one filter, such as brand:acme or price:[5 TO 15] (to bury, choose Bury).',
  ],
  [/must be a plain field name$/, () => "Enter a field's name alone, such as brand."],
  [/ (\S+) is repeated$/, (m) => `“${m[1]}” is there twice: remove the repeat.`],
  [/is required unless policy is remove$/, () => 'Enter a value, or choose to remove the parameter.'],
  [
    /must take at most (\d+) bytes as JSON \(they take (\d+)\)$/,
    (m) => `Too much data: at most ${m[1]} bytes, and these take ${m[2]}.`,
  ],
  [/is not a known field$/, (_m, label) => `${label} is not one this type has.`],
];

/**
 * The API's message about a field in plain words ("Values cannot be empty: enter at least
 * one." for `fieldValues must not be empty`); a message the console has no words for is
 * shown with the field's label in place of its API name.
 */
export function plainMessage(field: string, message: string, label: string): string {
  const name = label.replace(/\s*\(.*\)\s*$/, '');
  for (const [pattern, say] of RULES) {
    const match = message.match(pattern);
    if (match) return say(match, name);
  }
  const rest = message.startsWith(`${field} `) ? message.slice(field.length + 1) : message;
  return `${name} ${rest}`;
}

/** The API's message about `field` (or a path inside it) in plain words, or undefined. */
export function plainMessageFor(
  error: ErrorBody | undefined,
  field: string,
  label: string,
): string | undefined {
  const found = error?.errors?.find(
    (e) => e.field === field || e.field.startsWith(`${field}.`) || e.field.startsWith(`${field}[`),
  );
  return found && plainMessage(found.field, found.message, label);
}

/** Every message of a refusal in plain words, the fields named by `labels` (API name → label). */
export function messagesInWords(error: ErrorBody, labels: Record<string, string>): string {
  const messages = error.errors?.map((e) => {
    const top = e.field.split(/[.[]/)[0] ?? e.field;
    const said = plainMessage(e.field, e.message, labels[e.field] ?? labels[top] ?? e.field);
    // An item of a list (`included[3]`) is told by its line.
    const item = e.field.match(/^[^.[]+\[(\d+)\]$/);
    return item && labels[top]
      ? `${labels[top]}, line ${Number(item[1]) + 1}: ${said.charAt(0).toLowerCase()}${said.slice(1)}`
      : said;
  });
  return messages?.length ? messages.join(' ') : (error.message ?? 'The service refused.');
}

/** The actions the history records most, in words; others as recorded. */
export const ACTIONS: Record<string, string> = {
  create: 'Created',
  update: 'Edited',
  delete: 'Deleted',
  publish: 'Published',
  unpublish: 'Unpublished',
  restore: 'Restored',
  'restore-version': 'Restored an earlier version',
  bulk: 'Changed in bulk',
  put: 'Added',
  'put-terms': 'Changed the terms',
  'create-key': 'Created a key',
  'revoke-key': 'Revoked a key',
  'create-client': 'Created an API client',
  'delete-client': 'Revoked an API client',
};

/** What a rule's or rewrite's state is called: "Draft", "Published", … */
export function stateLabel(entry: { publishState: string; markedForDeletion: boolean }): string {
  if (entry.markedForDeletion) return 'Deleted, live until published';
  if (entry.publishState === 'PUBLISHED') return 'Published';
  if (entry.publishState === 'PUBLISHED_WITH_DRAFT_EDITS') return 'Published, with draft edits';
  if (entry.publishState === 'DRAFT') return 'Draft';
  return entry.publishState;
}
