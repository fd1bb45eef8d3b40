export type CheckStepName = 'zookeeper-connect' | 'solrcloud-state' | 'live-nodes' | 'solr-node';

export interface CheckStep {
  step: CheckStepName;
  ok: boolean;
  ms: number;
  message: string;
}

export type ConnectivityFailureCode = 'cluster-unreachable' | 'not-a-solr-cluster';

// Spec: steps 1 and 4 mean the cluster cannot be reached, steps 2 and 3 that what answered is no Solr cluster.
const FAILURE_CODE: Record<CheckStepName, ConnectivityFailureCode> = {
  'zookeeper-connect': 'cluster-unreachable',
  'solrcloud-state': 'not-a-solr-cluster',
  'live-nodes': 'not-a-solr-cluster',
  'solr-node': 'cluster-unreachable',
};

/** A step that did not pass; its message is shown to users, so it must never carry a secret. */
export class StepFailed extends Error {
  constructor(
    readonly step: CheckStepName,
    message: string,
  ) {
    super(message);
    this.name = 'StepFailed';
  }

  get code(): ConnectivityFailureCode {
    return FAILURE_CODE[this.step];
  }
}

/** Runs steps in order, timing each and keeping the record the check reports. */
export class StepLog {
  readonly steps: CheckStep[] = [];

  /** Runs `action`, which answers its value and a success message or throws a message-only Error. */
  async run<T>(step: CheckStepName, action: () => Promise<{ value: T; message: string }>): Promise<T> {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      const { value, message } = await action();
      this.steps.push({ step, ok: true, ms: ms(), message });
      return value;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.steps.push({ step, ok: false, ms: ms(), message });
      throw new StepFailed(step, message);
    }
  }
}
