import { ProduceError, ProduceFailure } from './produce.error';

/** `produce()` was called after the producer closed (the application is shutting down); nothing was sent. */
export class ProducerClosedError extends ProduceError {
  constructor(failure: Omit<ProduceFailure, 'attempts'>) {
    super(
      `Cannot publish to ${failure.topic}: the producer is closed because the application is shutting down. ` +
        'Nothing was sent.',
      { ...failure, attempts: 0 },
    );
  }
}
