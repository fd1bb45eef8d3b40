import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { emptyEffect, emptySources } from '../../src/evaluation/effect.js';
import type { Evaluation } from '../../src/evaluation/evaluation.js';
import { type ProfileParams, readShopperRequest, solrRequest } from '../../src/query/solr-request.js';

function evaluation(solr: Partial<Evaluation['solr']>): Evaluation {
  return {
    query: 'kettle',
    rewrittenQuery: 'kettle',
    rewrites: [],
    rules: [],
    effect: emptyEffect(),
    sources: emptySources(),
    solr: {
      q: 'kettle',
      fq: [],
      bq: [],
      elevateIds: null,
      excludeIds: null,
      params: [],
      facetFields: [],
      ...solr,
    },
  };
}

const profile: ProfileParams = { defaults: { sort: 'score desc,id asc' }, allowedParams: ['sort'] };
const sent = (params: ProfileParams, search: string, solr: Partial<Evaluation['solr']>) =>
  solrRequest(params, readShopperRequest(new URLSearchParams(search)), evaluation(solr)).body;

describe('the Solr request of pins', () => {
  test('pins are forced to the top whatever the sort (Solr elevates under a score sort only)', () => {
    const body = sent(profile, 'q=kettle&sort=price%20asc', { elevateIds: 'P1,P2' });
    assert.equal(body.get('elevateIds'), 'P1,P2');
    assert.equal(body.get('sort'), 'price asc');
    assert.equal(body.get('forceElevation'), 'true');
  });

  test('no pins, no forceElevation; a profile naming it keeps its value', () => {
    assert.equal(sent(profile, 'q=kettle', { excludeIds: 'P3' }).has('forceElevation'), false);
    const own = { ...profile, defaults: { ...profile.defaults, forceElevation: false } };
    assert.deepEqual(sent(own, 'q=kettle', { elevateIds: 'P1' }).getAll('forceElevation'), ['false']);
  });
});
