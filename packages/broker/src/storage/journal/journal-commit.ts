import type { FsyncMode } from '@mmmq/core';
import type { JournalOp, JournalOpKind } from './journal-record';

/** Something the journal's flush makes durable: a topic's files or a checkpoint. Returns the fsyncs it took. */
export interface Flushable {
  sync(): Promise<number>;
  /** Called as a flush takes this target, before its `sync`: what is visible now is what the flush covers. */
  flushStarting?(): void;
  /** Called once the flush's FLUSHED record is durable: what `flushStarting` saw no longer needs the journal. */
  flushed?(): void;
}

/** A topic log as the journal writes it: entries reach it only after the journal record holding them is durable. */
export interface JournalTopic extends Flushable {
  readonly name: string;
  /** Where the next entry written goes. */
  readonly writtenEnd: number;
  /** Writes encoded frames at `writtenEnd` (page cache); not visible yet. */
  write(frames: Buffer, starts: readonly number[]): Promise<void>;
  /** Makes entries written from `first` on visible to readers. */
  publish(first: number, payloads: readonly Buffer[]): void;
  /** Cuts what a failed group wrote, durably, so nothing of it can reappear after a crash. */
  cutBack(offset: number): Promise<void>;
  /** The topic's file write failed: it refuses writes until its files are reopened. */
  writeFailed(cause: unknown): void;
}

/** One part of a commit: entries for a topic, or a consumer-state change applied once the record is durable. */
export type CommitPart =
  | { topic: JournalTopic; payloads: readonly Buffer[] }
  | { op: Exclude<JournalOp, { kind: JournalOpKind.APPEND }>; apply?: () => Flushable | void };

/** A caller's commit: every part lands in one journal record, so all of them are durable together or none is. */
export interface CommitRequest {
  parts: readonly CommitPart[];
  bytes: number;
  /** Its publisher was answered before it is durable (nonPersistent) and may be sending more meanwhile. */
  answeredEarly: boolean;
  /** When its record is fsync'd: the strictest mode of a group applies to the whole record. */
  fsync: FsyncMode;
  /** Resolved with the first offset of each topic part (undefined for the others). */
  resolve: (firstOffsets: Array<number | undefined>) => void;
  reject: (error: Error) => void;
}
