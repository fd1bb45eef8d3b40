// Studios with their API clients and sync targets: exported without the clients' secrets and
// the targets' signing secrets; on import both get new ones, shown once in the report.
import {
  changeStudio,
  clientExists,
  createStudio,
  getStudio,
  importClient,
  listClients,
  studioExists,
} from '../../studios/service.js';
import { decide, each, type ImportRun, type ItemOf, type ObjectKind, record } from '../kind.js';

type StudioItem = ItemOf<'studios'>;

const name = (id: string) => `studio:${id}`;
const clientName = (clientId: string) => `client:${clientId}`;

export const studioKind: ObjectKind<'studios'> = {
  key: 'studios',
  prefix: 'studio',
  nameOf: (item) => name(item.id),
  secretsOf: (item) => [
    ...item.clients.map((client) => `${name(item.id)}#clients.${client.clientId}.clientSecret`),
    ...item.syncTargets.map((url) => `${name(item.id)}#syncTargets.${url}.secret`),
  ],
  exported(db, selection) {
    return each(
      Promise.all(
        selection.ids.studio.map(async (id): Promise<StudioItem> => {
          const studio = await getStudio(db, id);
          const clients = await listClients(db, id);
          return {
            id: studio.id,
            name: studio.name,
            syncTargets: studio.syncTargets,
            clients: clients.map(({ clientId, name, scopes }) => ({ clientId, name, scopes })),
          };
        }),
      ),
    );
  },
  async existing(db, items) {
    const names: string[] = [];
    for (const item of items) {
      if (await studioExists(db, item.id)) names.push(name(item.id));
      for (const client of item.clients) {
        if (await clientExists(db, client.clientId)) names.push(clientName(client.clientId));
      }
    }
    return names;
  },
  async write(run, items) {
    for (const item of items) {
      const done = decide(run, name(item.id));
      if (done === 'create') await createStudio(run.db, item, run.now, run.actor);
      if (done !== 'skip') {
        const changed = await changeStudio(
          run.db,
          run.deps.box,
          item.id,
          { name: item.name, syncTargets: item.syncTargets },
          run.now,
          run.actor,
        );
        for (const issued of changed.syncTargetSecrets ?? []) {
          run.report.secretsIssued.push({
            object: name(item.id),
            secret: `syncTargets.${issued.url}.secret`,
            value: issued.secret,
          });
        }
      }
      record(run, name(item.id), done);
      if (done !== 'skip') await writeClients(run, item);
    }
  },
  exists: studioExists,
};

/** The studio's clients that are missing, created with new secrets; existing ones are left alone. */
async function writeClients(run: ImportRun, item: StudioItem): Promise<void> {
  let createdAny = false;
  for (const client of item.clients) {
    const done = decide(run, clientName(client.clientId));
    if (done === 'create') {
      const created = await importClient(run.db, item.id, client, run.now);
      createdAny = true;
      run.report.secretsIssued.push({
        object: clientName(client.clientId),
        secret: 'clientSecret',
        value: created.clientSecret,
      });
    }
    record(run, clientName(client.clientId), done === 'create' ? 'create' : 'skip');
  }
  const change = createdAny ? run.deps.clientsChange?.(item.id) : undefined;
  if (change !== undefined) {
    await change.inside(run.db);
    run.afterCommit.set(`clients of ${item.id}`, () => change.committed());
  }
}
