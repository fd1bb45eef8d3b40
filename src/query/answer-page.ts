// What a response signal keeps of Solr's answer: `numFound` and the ids of the page's documents.

/** Solr's numFound and the page's document ids in order; none when the answer has no `response` (grouping). */
export function answerPage(solrBody: string): { hits: number; ids: string[] } {
  let answer: { response?: { numFound?: unknown; docs?: unknown } };
  try {
    answer = JSON.parse(solrBody) as typeof answer;
  } catch {
    return { hits: 0, ids: [] };
  }
  const response = answer.response;
  const hits = typeof response?.numFound === 'number' ? response.numFound : 0;
  const ids: string[] = [];
  if (Array.isArray(response?.docs)) {
    for (const doc of response.docs as Array<{ id?: unknown } | null>) {
      const id = doc?.id;
      // The products' unique key is `id`; a page whose `fl` leaves it out records no ids.
      if (typeof id === 'string' || typeof id === 'number') ids.push(String(id));
    }
  }
  return { hits, ids };
}
