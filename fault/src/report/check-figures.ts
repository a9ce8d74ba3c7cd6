import type { ScenarioRun } from '../harness/scenario-run';
import type { DeliveryCheck } from '../history/delivery-checker';
import type { LogCheck } from '../history/log-checker';

/** The figures of a check of the files against the history (docs/reliability.md), with their requirements. */
export function reportLogCheck(scenario: ScenarioRun, log: LogCheck, retries: number): void {
  const figure = scenario.figure.bind(scenario);
  figure('unknown outcomes found stored / absent', `${log.unknownRecovered} / ${log.unknownAbsent}`);
  figure('producer retries of unknown outcomes (same id)', retries);
  figure('copies explained by a retry', log.retryCopies);
  figure('lost (acked, not intact at its offset)', log.lost, 0);
  figure('garbage in the files (unreadable or never published)', log.garbage, 0);
  figure('duplicates not explained by a retry', log.duplicates, 0);
  figure('refused publishes stored', log.refusedStored, 0);
  figure('order violations (per producer session and topic)', log.orderViolations, 0);
  const { batches } = log;
  figure('batches sent / naming several topics', `${batches.batches} / ${batches.multiTopic}`);
  figure('unacknowledged batches stored whole / not at all', `${batches.storedWhole} / ${batches.storedNone}`);
  figure('unacknowledged multi-topic batches', batches.unackedMultiTopic);
  figure('unacknowledged batches stored in part (any topic)', batches.partial, 0);
  figure('of which multi-topic (visible in one topic, not another)', batches.partialMultiTopic, 0);
}

/** The figures of a check of what a push consumer received. */
export function reportDeliveryCheck(scenario: ScenarioRun, pushes: DeliveryCheck, malformed: number): void {
  const figure = scenario.figure.bind(scenario);
  figure('pushes received (incl. redeliveries)', pushes.deliveries);
  figure('redeliveries after restarts', pushes.redeliveries);
  figure('acknowledged, then delivered again without a kill', pushes.settledRedeliveredWithoutCrash, 0);
  figure('acknowledged, then delivered again after a kill: most per subscription and kill', pushes.settledRedeliveredAfterKillMax);
  figure('kills after which more than 1,000 acknowledged messages came again', pushes.settledRedeliveredBeyondBound, 0);
  figure('flagged redelivered without having been received before: most per subscription and restart', pushes.flaggedNeverReceivedMax);
  figure(
    'restarts after which more than a window in flight and the mark reserve (200) came flagged so',
    pushes.flaggedNeverReceivedBeyondBound,
    0,
  );
  figure('garbage served to the consumer', pushes.garbageServed, 0);
  figure('acked but never pushed', pushes.ackedNotDelivered, 0);
  figure('pushed, then replaced in the log', pushes.deliveredThenChanged, 0);
  figure('readable entries skipped by delivery', pushes.skipped, 0);
  figure('malformed pushes', malformed, 0);
}

/** The counts of a log check that must be 0. */
export function logFailures(log: LogCheck): Record<string, number> {
  const { lost, garbage, duplicates, refusedStored, orderViolations } = log;
  return { lost, garbage, duplicates, refusedStored, orderViolations, partialBatches: log.batches.partial };
}

/** The counts of a delivery check that must be 0. */
export function deliveryFailures(pushes: DeliveryCheck): Record<string, number> {
  const { garbageServed, ackedNotDelivered, deliveredThenChanged, skipped, settledRedeliveredWithoutCrash, settledRedeliveredBeyondBound } =
    pushes;
  const { flaggedNeverReceivedBeyondBound } = pushes;
  return {
    garbageServed,
    ackedNotDelivered,
    deliveredThenChanged,
    skipped,
    settledRedeliveredWithoutCrash,
    settledRedeliveredBeyondBound,
    flaggedNeverReceivedBeyondBound,
  };
}
