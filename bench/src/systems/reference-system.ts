import type { ConsumeHandle, System, TopicPlan } from './system';
import type { BenchContent } from '../payload';

/**
 * A reference row that is not a broker (a ceiling the bench measures beside the systems): it runs only the workloads
 * `onlyWorkloads` names, so the runner never calls what it leaves out, and those refuse, saying why.
 */
export abstract class ReferenceSystem implements Pick<
  System,
  'kind' | 'onlyWorkloads' | 'restart' | 'declare' | 'publish' | 'consume' | 'consumeCompeting' | 'drop'
> {
  readonly kind = 'reference' as const;
  readonly restart: string;

  constructor(readonly onlyWorkloads: { readonly ids: readonly string[]; readonly why: string }) {
    this.restart = onlyWorkloads.why;
  }

  declare(_plan: TopicPlan): Promise<void> {
    return this.notApplicable();
  }

  publish(_topic: string, _content: BenchContent): Promise<void> {
    return this.notApplicable();
  }

  consume(): Promise<ConsumeHandle> {
    return this.notApplicable();
  }

  consumeCompeting(): Promise<ConsumeHandle> {
    return this.notApplicable();
  }

  drop(_plan: TopicPlan): Promise<void> {
    return this.notApplicable();
  }

  protected notApplicable(): Promise<never> {
    return Promise.reject(new Error(this.onlyWorkloads.why));
  }
}
