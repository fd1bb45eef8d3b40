// The values of issue 26 that reached Solr unchanged with a search-only key: each runs a join
// over another core, which gives a shopper a yes/no oracle over any core on the node.
export const ATTACKS: ReadonlyArray<readonly [string, string]> = [
  ['fq', 'id:* AND _query_:"{!join fromIndex=other from=id to=id}*:*"'],
  ['fq', '*:* AND {!join fromIndex=other from=id to=id}*:*'],
  ['sort', 'query({!join fromIndex=other from=id to=id}*:*) desc'],
  ['fl', 'id,s:[subquery fromIndex=other]'],
];
