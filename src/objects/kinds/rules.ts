// Rules, with staging, live and so their publish state: streamed out a page at a time, and
// written per studio (the studio in the document or present), replacing by id under overwrite.
import { ValidationError } from '../../http/errors.js';
import { existingRules, importStudioRules, studioRulesForExport } from '../../rules/rule-transfer.js';
import { studioExists } from '../../studios/service.js';
import { decide, type ItemOf, type ObjectKind, record } from '../kind.js';

type RuleItem = ItemOf<'rules'>;

const name = (id: string) => `rule:${id}`;

export const ruleKind: ObjectKind<'rules'> = {
  key: 'rules',
  prefix: 'rule',
  streamed: true,
  nameOf: (item) => name(item.id),
  async *exported(db, selection) {
    for (const studioId of selection.ids.studio) yield* studioRulesForExport(db, studioId);
  },
  async existing(db, items) {
    const found = await existingRules(
      db,
      items.map((item) => item.id),
    );
    return [...found.keys()].map(name);
  },
  async write(run, items) {
    const byStudio = new Map<string, RuleItem[]>();
    for (const item of items) {
      const done = decide(run, name(item.id));
      record(run, name(item.id), done);
      if (done === 'skip') continue;
      const rules = byStudio.get(item.studioId);
      if (rules) rules.push(item);
      else byStudio.set(item.studioId, [item]);
    }
    for (const [studioId, rules] of byStudio) {
      if (!(await studioExists(run.db, studioId))) {
        throw new ValidationError([
          {
            field: 'objects.rules',
            message: `rule ${rules[0]!.id} names studio:${studioId}, which is neither in the document nor present`,
          },
        ]);
      }
      const written = await importStudioRules(
        run.db,
        studioId,
        rules.map(({ publishState: _derived, ...rule }) => rule),
        run.now,
      );
      if (written.created.length + written.replaced.length > 0) {
        run.afterCommit.set('rule deliveries', () => run.deps.wakeDeliveries());
        run.afterCommit.set(`live rules of ${studioId}`, async () => run.deps.liveRulesChanged?.(studioId));
      }
    }
  },
  async exists(db, id) {
    return (await existingRules(db, [id])).size > 0;
  },
  async present(db, ids) {
    return new Set((await existingRules(db, ids)).keys());
  },
};
