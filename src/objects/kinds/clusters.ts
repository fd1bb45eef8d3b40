// Search clusters: exported without their secrets, imported without a connectivity check.
import { getCluster, importCluster, listClusters } from '../../clusters/service.js';
import { NotFoundError } from '../../http/errors.js';
import { decide, each, type ObjectKind, record } from '../kind.js';

const name = (id: string) => `search-cluster:${id}`;
const SECRET_OF = { NONE: undefined, BASIC: 'password', KERBEROS: 'keyTab' } as const;

export const clusterKind: ObjectKind<'searchClusters'> = {
  key: 'searchClusters',
  prefix: 'search-cluster',
  nameOf: (item) => name(item.id),
  secretsOf(item) {
    const secret = SECRET_OF[item.authConfig?.authType ?? 'NONE'];
    return secret ? [`${name(item.id)}#authConfig.${secret}`] : [];
  },
  exported(db, selection) {
    return each(
      Promise.all(
        selection.ids['search-cluster'].map(async (id) => {
          const { createdAt: _c, updatedAt: _u, authConfig, ...cluster } = await getCluster(db, id);
          const { password: _p, keyTab: _k, ...auth } = authConfig;
          return { ...cluster, authConfig: auth };
        }),
      ),
    );
  },
  async existing(db, items) {
    const stored = new Set((await listClusters(db)).map((cluster) => cluster.id));
    return items.filter((item) => stored.has(item.id)).map((item) => name(item.id));
  },
  async write(run, items) {
    for (const item of items) {
      const done = decide(run, name(item.id));
      if (done !== 'skip') {
        const result = await importCluster(run.db, run.deps.box, item, {
          replace: done === 'replace',
          now: run.now,
        });
        for (const secret of result.missingSecrets) {
          run.report.needsSecret.push({
            object: name(item.id),
            secret,
            how: `PUT /api/searchCluster/${item.id} with ${secret}`,
          });
        }
      }
      record(run, name(item.id), done);
    }
  },
  async exists(db, id) {
    try {
      await getCluster(db, id);
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  },
};
