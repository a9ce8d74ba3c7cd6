import { Topic } from '@mmmq/core';
import { Inject, Injectable } from '@nestjs/common';
import { MMMQ_PERSISTENCE_OPTIONS, ResolvedPersistenceOptions } from '../config/broker-options';
import { CheckpointDirectory } from './checkpoint-directory';
import { Journal } from './journal/journal';
import { PurgeMark } from './purge-mark';
import { RecentEntriesBudget } from './recent-entries-budget';
import { SegmentFileChain, SegmentRepair } from './segment-file-chain';
import { TopicQueue } from './topic-queue';

/** Opens a topic's segment files (`persistence.segmentMaxBytes` each), repairing a torn tail. */
@Injectable()
export class SegmentFileChainFactory {
  constructor(@Inject(MMMQ_PERSISTENCE_OPTIONS) private readonly options: ResolvedPersistenceOptions) {}

  open(topicDir: string): Promise<{ chain: SegmentFileChain; repairs: SegmentRepair[] }> {
    return SegmentFileChain.open(topicDir, this.options.segmentMaxBytes);
  }
}

/** Opens a topic's `checkpoints/` folder; its checkpoint changes are committed through the broker's journal. */
@Injectable()
export class CheckpointDirectoryFactory {
  constructor(private readonly journal: Journal) {}

  open(topicDir: string): Promise<CheckpointDirectory> {
    return CheckpointDirectory.open(topicDir, this.journal);
  }
}

/**
 * Makes a topic's {@link TopicQueue} from its parts: the segment chain and checkpoint folder (from their factories),
 * its purge mark, the broker's journal and the memory budget all topics share for recent entries. The broker's
 * `TopicQueueContainer` opens every topic through it.
 */
@Injectable()
export class TopicQueueFactory {
  constructor(
    private readonly chains: SegmentFileChainFactory,
    private readonly checkpoints: CheckpointDirectoryFactory,
    private readonly journal: Journal,
    private readonly recentEntries: RecentEntriesBudget,
  ) {}

  /** The factories wired by hand, for storage used without Nest (tests, tools). */
  static standalone(options: ResolvedPersistenceOptions, journal: Journal): TopicQueueFactory {
    return new TopicQueueFactory(
      new SegmentFileChainFactory(options),
      new CheckpointDirectoryFactory(journal),
      journal,
      new RecentEntriesBudget(),
    );
  }

  async open(topic: Topic, dir: string): Promise<{ queue: TopicQueue; repairs: SegmentRepair[] }> {
    const { chain, repairs } = await this.chains.open(dir);
    const checkpoints = await this.checkpoints.open(dir);
    const purgeMark = await PurgeMark.open(dir);
    return { queue: new TopicQueue(topic, dir, chain, checkpoints, this.recentEntries, this.journal, purgeMark), repairs };
  }
}
