// Query rewrites, with staging, live and so their publish state: read per studio for an
// export, and written per studio (the studio in the document or present), replacing by id
// under overwrite. A live set that would loop is refused (409), nothing written; evaluation
// hears of a changed live set only after the import's commit.
import { ValidationError } from '../../http/errors.js';
import {
  existingRewrites,
  importStudioRewrites,
  type RewriteToImport,
  studioRewritesForExport,
} from '../../rewrites/rewrite-transfer.js';
import { studioExists } from '../../studios/service.js';
import { decide, type ItemOf, type ObjectKind, record } from '../kind.js';

type RewriteItem = ItemOf<'rewrites'>;

const name = (id: string) => `rewrite:${id}`;

export const rewriteKind: ObjectKind<'rewrites'> = {
  key: 'rewrites',
  nameOf: (item) => name(item.id),
  async *exported(db, selection) {
    for (const studioId of selection.ids.studio) yield* await studioRewritesForExport(db, studioId);
  },
  async existing(db, items) {
    const found = await existingRewrites(
      db,
      items.map((item) => item.id),
    );
    return [...found.keys()].map(name);
  },
  async write(run, items) {
    const byStudio = new Map<string, RewriteItem[]>();
    for (const item of items) {
      const done = decide(run, name(item.id));
      record(run, name(item.id), done);
      if (done === 'skip') continue;
      const rewrites = byStudio.get(item.studioId);
      if (rewrites) rewrites.push(item);
      else byStudio.set(item.studioId, [item]);
    }
    for (const [studioId, rewrites] of byStudio) {
      if (!(await studioExists(run.db, studioId))) {
        throw new ValidationError([
          {
            field: 'objects.rewrites',
            message: `rewrite ${rewrites[0]!.id} names studio:${studioId}, which is neither in the document nor present`,
          },
        ]);
      }
      const written = await importStudioRewrites(
        run.db,
        studioId,
        rewrites.map(({ publishState: _derived, ...rewrite }) => rewrite as RewriteToImport),
      );
      if (written.liveChanged) {
        run.afterCommit.set(`live rewrites of ${studioId}`, () => run.deps.liveRewritesChanged?.(studioId));
      }
    }
  },
};
