// The console's words for the API's names (console/src/words.ts), without a browser: the
// types of rules and rewrites, counts, who made a change, and the API's validation messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  actorFilter,
  actorName,
  messagesInWords,
  plainMessage,
  plural,
  stateLabel,
  typeLabel,
} from '../../console/src/words.js';

test('rule and rewrite types have the merchandiser’s names, in any case the API gives them', () => {
  assert.deepEqual(['blockList', 'pinned', 'boostList', 'buryList', 'redirect', 'banner'].map(typeLabel), [
    'Block list',
    'Pin products',
    'Boost',
    'Bury',
    'Redirect',
    'Banner',
  ]);
  assert.equal(typeLabel('BLOCKLIST'), 'Block list');
  assert.equal(typeLabel('synonym'), 'Synonyms');
  assert.deepEqual(
    ['filterList', 'boostAttributes', 'setParams', 'responseValue', 'setFacetList'].map(typeLabel),
    ['Filter list', 'Boost or bury by attribute', 'Solr parameters', 'Data for the page', 'Facet order'],
  );
  assert.equal(typeLabel('somethingNew'), 'somethingNew');
});

test('counts agree with their number', () => {
  assert.equal(plural(1, 'rule'), '1 rule');
  assert.equal(plural(0, 'rule'), '0 rules');
  assert.equal(plural(2, 'rule'), '2 rules');
  assert.equal(plural(1200, 'change'), '1,200 changes');
  assert.equal(plural(3, 'query', 'queries'), '3 queries');
});

test('each person has one spelling, the first user being admin however the change was made', () => {
  assert.equal(actorName('admin'), 'admin');
  assert.equal(actorName('user:admin'), 'admin');
  assert.equal(actorName('user:mira'), 'mira');
  assert.equal(actorName('client:feed importer'), 'feed importer (API client)');
  assert.equal(actorFilter('mira'), 'user:mira');
  assert.equal(actorFilter(' admin '), 'admin');
  assert.equal(actorFilter('client:ci'), 'client:ci');
  assert.equal(actorFilter(''), '');
});

test("the API's validation messages are said in plain words, naming the field by its label", () => {
  const cases: [string, string, string, string][] = [
    ['fieldValues', 'fieldValues must not be empty', 'Values (one a line)', 'Values cannot be empty.'],
    ['name', 'name is required', 'Name', 'Name is needed.'],
    ['boost', 'boost must be a number', 'Boost', 'Enter a number, such as 10.'],
    [
      'url',
      'url must be an absolute http or https URL',
      'Redirect URL',
      'Enter a full web address, starting with https://.',
    ],
    [
      'correction',
      'correction must differ from the misspelling',
      'Correction',
      'The correction must be another word than the misspelling.',
    ],
    ['pinnedValues[0].position', 'pinnedValues[0].position must be ≥ 1', 'Pinned values', 'Enter 1 or more.'],
    ['zone', 'zone must have at most 64 characters', 'Zone', 'Use at most 64 characters.'],
    [
      'conditions.effectiveEnd',
      'conditions.effectiveEnd must be after effectiveStart',
      'End',
      'The end must come after the start.',
    ],
    // The new kinds' own checks (src/rules/action-checks.ts).
    ['boosts[1].weight', 'boosts[1].weight must not be 0', 'By how much', 'Enter a number other than 0.'],
    [
      'boosts[0]',
      'boosts[0] needs fieldName and value, or a query',
      'boost 1',
      'Enter an attribute and its value, or a filter.',
    ],
    [
      'facetFields[1]',
      'facetFields[1] brand is repeated',
      'Facets',
      '“brand” is there twice: remove the repeat.',
    ],
    [
      'params[0].value',
      'params[0].value is required unless policy is remove',
      'Value',
      'Enter a value, or choose to remove the parameter.',
    ],
    [
      'responseValues',
      'responseValues must take at most 1024 bytes as JSON (they take 2000)',
      'Data',
      'Too much data: at most 1024 bytes, and these take 2000.',
    ],
  ];
  for (const [field, message, label, said] of cases) {
    assert.equal(plainMessage(field, message, label), said, message);
  }
  // A message the console has no words for keeps its sense, with the label for the API's name.
  assert.equal(plainMessage('zone', 'zone is odd today', 'Zone'), 'Zone is odd today');
  assert.equal(
    messagesInWords(
      {
        errors: [
          { field: 'included[3]', message: 'included[3] must have at most 100 characters' },
          { field: 'excluded', message: 'excluded must not repeat a term' },
        ],
      },
      { included: 'Included terms', excluded: 'Excluded terms' },
    ),
    'Included terms, line 4: use at most 100 characters. A term is there twice: remove the repeat.',
  );
  assert.equal(messagesInWords({ message: 'studio not found' }, {}), 'studio not found');
});

test('publish states are words', () => {
  assert.equal(stateLabel({ publishState: 'DRAFT', markedForDeletion: false }), 'Draft');
  assert.equal(
    stateLabel({ publishState: 'PUBLISHED_WITH_DRAFT_EDITS', markedForDeletion: false }),
    'Published, with draft edits',
  );
  assert.equal(
    stateLabel({ publishState: 'PUBLISHED', markedForDeletion: true }),
    'Deleted, live until published',
  );
});
