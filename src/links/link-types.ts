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

/**
 * The link type as the service knows it, for one written in any case (`DEPENDSON`): the API
 * has always taken link types case-insensitively; the schemas then check the closed list.
 */
export function canonicalLinkType(value: string): LinkType | undefined {
  return byLowerCase.get(value.toLowerCase());
}

/** When a self link is not one (its object differs from its subject), the field error saying so. */
export function selfLinkProblem(link: { subject: string; object: string; linkType: LinkType }) {
  if (link.linkType !== 'self' || link.subject === link.object) return undefined;
  return { field: 'object', message: 'a self link needs object equal to subject' };
}
