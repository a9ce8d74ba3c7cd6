import { backlogRestart } from './backlog-restart';
import { competing } from './competing';
import { e2eFixedRate } from './e2e-fixed-rate';
import { e2eSaturation } from './e2e-saturation';
import { embedded } from './embedded';
import { fanout } from './fanout';
import { largeMessages } from './large-messages';
import { httpPublishers } from './http-publishers';
import { manyTopics } from './many-topics';
import { outboxInbox } from './outbox-inbox';
import { plainConsumer } from './plain-consumer';
import { publishOne } from './publish-one';
import { publishWindow } from './publish-window';
import { pull } from './pull';
import { requestReply } from './request-reply';
import { scheduled } from './scheduled';
import type { Workload } from './workload';

/** In the order they run and appear in the report; the backlog comes last because it restarts brokers. */
export const WORKLOADS: Workload[] = [
  publishOne,
  httpPublishers,
  publishWindow,
  e2eSaturation,
  e2eFixedRate,
  fanout,
  competing,
  pull,
  plainConsumer(1),
  plainConsumer(1, true),
  plainConsumer(3),
  manyTopics(100),
  manyTopics(1000),
  largeMessages,
  outboxInbox('live'),
  outboxInbox('backlog'),
  embedded,
  requestReply,
  scheduled,
  backlogRestart,
];
