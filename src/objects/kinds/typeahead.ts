// Typeahead instances with their curated terms; the embed token never leaves, and an imported
// instance gets one nobody knows until it is rotated.
import {
  importInstance,
  instanceExists,
  instanceForExport,
  servedAfterImport,
} from '../../typeahead/transfer.js';
import { decide, each, type ObjectKind, record } from '../kind.js';

const name = (id: string) => `typeahead:${id}`;

export const typeaheadKind: ObjectKind<'typeaheadInstances'> = {
  key: 'typeaheadInstances',
  prefix: 'typeahead',
  nameOf: (item) => name(item.id),
  secretsOf: (item) => [`${name(item.id)}#embedToken`],
  exported(db, selection) {
    return each(Promise.all(selection.ids.typeahead.map((id) => instanceForExport(db, id))));
  },
  async existing(db, items) {
    const names: string[] = [];
    for (const item of items) if (await instanceExists(db, item.id)) names.push(name(item.id));
    return names;
  },
  async write(run, items) {
    for (const item of items) {
      const done = decide(run, name(item.id));
      if (done !== 'skip') {
        await importInstance(run.db, run.deps.typeahead, item, { replace: done === 'replace', now: run.now });
        run.afterCommit.set('typeahead', () => servedAfterImport(run.deps.typeahead));
      }
      if (done === 'create') {
        run.report.needsSecret.push({
          object: name(item.id),
          secret: 'embedToken',
          how: `POST /api/typeahead/instances/${item.id}/embed-token`,
        });
      }
      record(run, name(item.id), done);
    }
  },
  exists: instanceExists,
};
