import { MmmqError } from '@mmmq/core';

/** An in-process listener cannot join its subscription as declared (its dispatcher conflicts with it). */
export class InProcessListenerError extends MmmqError {}

/** The message's lease is no longer held (it ended, or the message was settled): it is, or was, delivered again. */
export class InProcessLeaseLostError extends MmmqError {}
