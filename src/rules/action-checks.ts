// Checks of the actions that speak Solr's language (a boost by a query, Solr parameters, facet
// fields) and of the values returned to the storefront, beyond what their schemas say. A rule
// may ask of Solr only what a shopper's own parameters may (the query profiles' policy,
// src/query/shopper-params.ts): no forbidden parameter, no local parameters, nested queries,
// functions or other cores in a value, `fq`, `sort` and `fl` in their safe forms.
import { filterOf } from '../query/shopper-filter.js';
import { isForbiddenParam, RefusedValue, shopperValue } from '../query/shopper-params.js';
import { isPlainField } from '../query/solr-syntax.js';
import type { FieldError } from './rule.js';
import { MAX_RESPONSE_VALUES_BYTES } from './rule-content.js';

interface ActionInput {
  conditions?: { queries?: string[]; queryMatch?: string };
  boosts?: Array<{ fieldName?: string; value?: string; query?: string; weight: number }>;
  params?: Array<{ key: string; value?: string; policy?: string }>;
  responseValues?: Array<{ key: string; value: unknown }>;
  facetFields?: string[];
}

/** Problems of the new kinds' fields and of the query match modes, on a schema-valid body. */
export function actionErrors(content: Record<string, unknown>): FieldError[] {
  const input = content as ActionInput;
  return [
    ...matchErrors(input),
    ...boostErrors(input),
    ...paramErrors(input),
    ...responseValueErrors(input),
    ...facetErrors(input),
  ];
}

/**
 * The safe form of the parts Solr reads, written anew as a shopper's would be (a boost's query,
 * `fq`, `sort`, `fl`), so that evaluation sends exactly what was checked. On a valid content.
 */
export function normaliseActions(content: Record<string, unknown>): void {
  const input = content as ActionInput;
  for (const boost of input.boosts ?? []) if (boost.query !== undefined) boost.query = filterOf(boost.query)!;
  for (const param of input.params ?? []) {
    param.policy ??= 'replace';
    param.value ??= '';
    if (param.policy !== 'remove') param.value = shopperValue(param.key, param.value, {}) as string;
  }
}

function matchErrors({ conditions }: ActionInput): FieldError[] {
  if (conditions?.queryMatch !== 'empty' || (conditions.queries ?? []).length === 0) return [];
  return [
    {
      field: 'conditions.queries',
      message: 'conditions.queries must be empty when queryMatch is empty (the rule fires on no query)',
    },
  ];
}

function boostErrors({ boosts }: ActionInput): FieldError[] {
  const errors: FieldError[] = [];
  boosts?.forEach(({ fieldName, value, query, weight }, i) => {
    const at = `boosts[${i}]`;
    const byValue = fieldName !== undefined || value !== undefined;
    if (query === undefined && (fieldName === undefined || value === undefined)) {
      errors.push({ field: at, message: `${at} needs fieldName and value, or a query` });
    } else if (query !== undefined && byValue) {
      errors.push({ field: at, message: `${at} takes fieldName and value, or a query, not both` });
    } else if (query !== undefined) {
      const filter = filterOf(query);
      if (filter === undefined || filter.startsWith('-')) {
        errors.push({
          field: `${at}.query`,
          message: `${at}.query must be one filter: field:value, field:"a phrase", field:[a TO b] or field:(a OR "b") (bury with a negative weight, not with -)`,
        });
      }
    } else if (!isPlainField(fieldName!)) {
      errors.push({ field: `${at}.fieldName`, message: `${at}.fieldName must be a plain field name` });
    }
    if (weight === 0) errors.push({ field: `${at}.weight`, message: `${at}.weight must not be 0` });
  });
  return errors;
}

function paramErrors({ params }: ActionInput): FieldError[] {
  const errors: FieldError[] = [];
  params?.forEach(({ key, value = '', policy = 'replace' }, i) => {
    const at = `params[${i}]`;
    if (isForbiddenParam(key)) {
      errors.push({
        field: `${at}.key`,
        message: `${at}.key cannot be ${key}: searchdeck sets it, or it reaches beyond the query's collection`,
      });
      return;
    }
    if (policy === 'remove') {
      if (value !== '')
        errors.push({ field: `${at}.value`, message: `${at}.value must be left out when policy is remove` });
      return;
    }
    if (value === '') {
      errors.push({ field: `${at}.value`, message: `${at}.value is required unless policy is remove` });
      return;
    }
    const sent = shopperValue(key, value, {});
    if (sent instanceof RefusedValue)
      errors.push({ field: `${at}.value`, message: `${at}.value: ${sent.message}` });
  });
  return errors;
}

function responseValueErrors({ responseValues }: ActionInput): FieldError[] {
  if (responseValues === undefined) return [];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  responseValues.forEach(({ key }, i) => {
    if (seen.has(key))
      errors.push({
        field: `responseValues[${i}].key`,
        message: `responseValues[${i}].key ${key} is repeated`,
      });
    seen.add(key);
  });
  const bytes = Buffer.byteLength(JSON.stringify(responseValues.map(({ key, value }) => [key, value])));
  if (bytes > MAX_RESPONSE_VALUES_BYTES) {
    errors.push({
      field: 'responseValues',
      message: `responseValues must take at most ${MAX_RESPONSE_VALUES_BYTES} bytes as JSON (they take ${bytes})`,
    });
  }
  return errors;
}

function facetErrors({ facetFields }: ActionInput): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  facetFields?.forEach((field, i) => {
    const at = `facetFields[${i}]`;
    if (!isPlainField(field)) errors.push({ field: at, message: `${at} must be a plain field name` });
    else if (seen.has(field)) errors.push({ field: at, message: `${at} ${field} is repeated` });
    seen.add(field);
  });
  return errors;
}
