// The merchandiser's words for what the API names for programs: the types of rules and
// rewrites, counts, who made a change, and the API's validation messages.

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
