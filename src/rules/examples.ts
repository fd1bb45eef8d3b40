// Examples of the Rules API's shapes for the OpenAPI document, from the README's scenario:
// a block list for product P1 in the studio `shop`, created by the API client `ci`.
export const RULE_ID = '8b59e5c6-042b-43a3-82e0-c2304c9dc768';
/** An event of its history (its creation). */
export const HISTORY_ID = '0b6f0c8e-5d2a-4a8e-9d0e-3b1f6f7c2a10';

const content = {
  type: 'blockList',
  name: 'Block P1',
  description: '',
  tags: [],
  groups: [],
  segments: [],
  precedence: 0,
  conditions: { queries: [], fieldValues: [], queryProfiles: [], effectiveStart: null, effectiveEnd: null },
  deleted: false,
  fieldName: 'id',
  fieldValues: ['P1'],
};

/** A published rule as answered. */
export const publishedRule = {
  id: RULE_ID,
  externalId: null,
  contentType: 'RULE',
  createdBy: 'client:ci',
  creationDate: '2026-11-24T06:28:36.276Z',
  lastModifiedBy: 'client:ci',
  lastModified: '2026-11-24T06:28:36.402Z',
  published: true,
  publishState: 'PUBLISHED',
  markedForDeletion: false,
  ...content,
  liveContent: content,
};

/** What a client sends to create it. */
export const newRule = { type: 'blockList', name: 'Block P1', fieldName: 'id', fieldValues: ['P1'] };

/** What a client sends to change it (the type cannot change and may be left out). */
export const changedRule = { name: 'Block P1 and P2', fieldName: 'id', fieldValues: ['P1', 'P2'] };
