import { ValidationError } from '../http/errors.js';

export const linkTypes = [
  'dependsOn',
  'supports',
  'isPartOf',
  'hasPart',
  'inContextOf',
  'hasContext',
  'relatesTo',
  'self',
] as const;

export type LinkType = (typeof linkTypes)[number];

const reverses: Partial<Record<LinkType, LinkType>> = {
  dependsOn: 'supports',
  supports: 'dependsOn',
  isPartOf: 'hasPart',
  hasPart: 'isPartOf',
  inContextOf: 'hasContext',
  hasContext: 'inContextOf',
  self: 'self',
};

/** The direction a relationship is stored in: one of each reversible pair, plus relatesTo and self. */
const storedTypes = new Set<LinkType>(['dependsOn', 'isPartOf', 'inContextOf', 'relatesTo', 'self']);

const byLowerCase = new Map(linkTypes.map((t) => [t.toLowerCase(), t]));

/** The reverse of a link type, or undefined for the one-way relatesTo. */
export function reverseOf(linkType: LinkType): LinkType | undefined {
  return reverses[linkType];
}

export function isReversible(linkType: LinkType): boolean {
  return reverses[linkType] !== undefined;
}

export function isStoredDirection(linkType: LinkType): boolean {
  return storedTypes.has(linkType);
}

/** Where a value came from, for the error code of a bad one. */
export type InputSource = 'query' | 'body';

export function errorCodeFor(source: InputSource): 'invalid-parameter' | 'invalid-body' {
  return source === 'query' ? 'invalid-parameter' : 'invalid-body';
}

/** Reads a link type case-insensitively; anything else is a 400 naming the field. */
export function parseLinkType(value: string, source: InputSource): LinkType {
  const type = byLowerCase.get(value.toLowerCase());
  if (!type) {
    throw new ValidationError(
      [{ field: 'linkType', message: `linkType must be one of ${linkTypes.join(', ')}` }],
      errorCodeFor(source),
    );
  }
  return type;
}

/** A query filter value: absent or `*` means any. */
export function parseLinkTypeFilter(value: string | undefined): LinkType | undefined {
  return value === undefined || value === '*' ? undefined : parseLinkType(value, 'query');
}
