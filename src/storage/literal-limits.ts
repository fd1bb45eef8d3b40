// SQLite (3.53, as bundled by better-sqlite3) plans with the value of a bound LIMIT, so a
// statement whose LIMIT is a parameter is compiled again on every run, as if the schema had
// changed: a point lookup with `limit ?` cost three times one with `limit 1`, and the link
// check spent a tenth of its CPU parsing and planning its one statement. LIMIT values are
// few (1, a page size), so writing them into the text keeps one cached statement per value.
// OFFSET is not planned with and stays a parameter: pages would otherwise make a text each.
import {
  type KyselyPlugin,
  LimitNode,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  ValueNode,
} from 'kysely';

class LimitsAsLiterals extends OperationNodeTransformer {
  protected override transformLimit(node: LimitNode): LimitNode {
    const limit = node.limit;
    if (ValueNode.is(limit) && !limit.immediate && isPlainCount(limit.value)) {
      return LimitNode.create(ValueNode.createImmediate(limit.value));
    }
    return super.transformLimit(node);
  }
}

/** A value that is safe to write into SQL as it is: a non-negative integer. */
function isPlainCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Writes integer LIMIT values into the SQL text instead of binding them (SQLite only). */
export class LiteralLimits implements KyselyPlugin {
  readonly #transformer = new LimitsAsLiterals();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
