// The Analytics API of a query profile (read by every role; never by search-only keys, which
// open only the query endpoint) and the privacy delete of one shopper's signals (admins).

import { Type } from 'typebox';
import type { Area, TypedApp } from '../http/area.js';
import { adminErrors } from '../http/schemas.js';
import { shopperHashKey } from '../signals/shopper-hash.js';
import type { AnalyticsRollup } from './rollup-job.js';
import {
  AnalyticsParams,
  Documents,
  Erasure,
  ErasureQuery,
  NoClickSearches,
  NoResultSearches,
  PagedRangeQuery,
  Rates,
  RatesQuery,
  Rules,
  SearchDetails,
  SearchDetailsQuery,
  TopSearches,
} from './schemas.js';
import { AnalyticsService, eraseShopper } from './service.js';

const tags = ['analytics'];

/** The Analytics API and the privacy delete, app-scoped like the query profiles they read. */
export function analyticsArea(rollup: AnalyticsRollup): Area {
  return {
    name: 'analytics',
    admin(api: TypedApp, ctx) {
      if (!api.prefix.includes(':app')) return;
      const service = new AnalyticsService(ctx.store.db, ctx.now, ctx.store.reader);
      const paged = (operationId: string, summary: string, path: string) => ({
        url: `/analytics/:profile${path}`,
        schema: { tags, operationId, summary, params: AnalyticsParams, querystring: PagedRangeQuery },
      });
      const top = paged('getTopSearches', 'Top searches of a profile, most searched first', '/searches');
      api.get(
        top.url,
        { schema: { ...top.schema, response: { 200: TopSearches, ...adminErrors } } },
        (request) => service.topSearches(request.params.app, request.params.profile, request.query),
      );
      const none = paged(
        'getNoResultSearches',
        'Search strings whose latest search had no hits',
        '/searches/no-results',
      );
      api.get(
        none.url,
        { schema: { ...none.schema, response: { 200: NoResultSearches, ...adminErrors } } },
        (request) => service.noResults(request.params.app, request.params.profile, request.query),
      );
      const noClicks = paged(
        'getNoClickSearches',
        'Search strings with hits and no click on any of their searches',
        '/searches/no-clicks',
      );
      api.get(
        noClicks.url,
        { schema: { ...noClicks.schema, response: { 200: NoClickSearches, ...adminErrors } } },
        (request) => service.noClicks(request.params.app, request.params.profile, request.query),
      );
      api.get(
        '/analytics/:profile/rates',
        {
          schema: {
            tags,
            operationId: 'getSearchRates',
            summary: 'Searches and their no-result, click-through and conversion rates per day or hour',
            params: AnalyticsParams,
            querystring: RatesQuery,
            response: { 200: Rates, ...adminErrors },
          },
        },
        (request) => service.rates(request.params.app, request.params.profile, request.query),
      );
      api.get(
        '/analytics/:profile/searches/details',
        {
          schema: {
            tags,
            operationId: 'getSearchDetails',
            summary:
              "One search's drill-down: the rules that fired on it and the documents clicked after it (from the raw signals, kept for their retention)",
            params: AnalyticsParams,
            querystring: SearchDetailsQuery,
            response: { 200: SearchDetails, ...adminErrors },
          },
        },
        (request) => service.searchDetails(request.params.app, request.params.profile, request.query),
      );
      const rules = paged(
        'getRuleAnalytics',
        'The rules that fired on the searches, most fired first',
        '/rules',
      );
      api.get(
        rules.url,
        { schema: { ...rules.schema, response: { 200: Rules, ...adminErrors } } },
        (request) => service.rules(request.params.app, request.params.profile, request.query),
      );
      const documents = paged(
        'getDocumentAnalytics',
        'The documents clicked after the searches, most clicked first',
        '/documents',
      );
      api.get(
        documents.url,
        { schema: { ...documents.schema, response: { 200: Documents, ...adminErrors } } },
        (request) => service.documents(request.params.app, request.params.profile, request.query),
      );
      const hashKey = shopperHashKey(ctx.secretKey);
      api.delete(
        '/signals',
        {
          config: { access: 'admin' },
          schema: {
            tags,
            operationId: 'eraseShopperSignals',
            summary: "Erase one shopper's searches and signals, raw and rolled up (privacy requests)",
            params: Type.Object({ app: AnalyticsParams.properties.app }),
            querystring: ErasureQuery,
            response: { 200: Erasure, ...adminErrors },
          },
        },
        (request) =>
          eraseShopper(ctx.store, rollup, hashKey, request.params.app, request.query.user_id, ctx.now()),
      );
    },
  };
}
