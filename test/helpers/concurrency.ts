// Sending one request many times at once, and reading what the answers say.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Engine } from '../../src/storage/database.js';
import { build, buildNodes, type TestApp } from './app.js';

/** The same request sent `count` times at once, spread over the nodes; answers status → count. */
export async function atOnce(nodes: FastifyInstance[], count: number, request: InjectOptions) {
  const responses = await Promise.all(
    Array.from({ length: count }, (_, i) => nodes[i % nodes.length]!.inject(request)),
  );
  const statuses = new Map<number, number>();
  for (const response of responses)
    statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
  return { responses, statuses: Object.fromEntries(statuses) as Record<number, number> };
}

/** Exactly one creation; every other answer a 409 `conflict` naming `field`. */
export function assertOneCreated(
  outcome: Awaited<ReturnType<typeof atOnce>>,
  count: number,
  created: number,
  field: string,
): void {
  assert.deepEqual(outcome.statuses, { [created]: 1, 409: count - 1 });
  for (const response of outcome.responses.filter((r) => r.statusCode === 409)) {
    const body = response.json();
    assert.equal(body.code, 'conflict');
    assert.deepEqual(
      body.errors.map((e: { field: string }) => e.field),
      [field],
    );
  }
}

/** One node, and two nodes on one database: the setups concurrency is tested in. */
export function nodeSetups(engine: Engine): Array<[string, (t: TestContext) => Promise<TestApp[]>]> {
  return [
    ['one node', async (t) => [await build(t, engine)]],
    ['two nodes', (t) => buildNodes(t, engine, 2)],
  ];
}
