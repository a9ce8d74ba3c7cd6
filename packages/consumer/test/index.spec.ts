import * as consumer from '../src';

describe('@mmmq/consumer public API', () => {
  it('exports exactly the agreed runtime names', () => {
    expect(Object.keys(consumer).sort()).toEqual(
      [
        'BrokerRequestError',
        'ConsumerClosingError',
        'DEFAULT_DELIVERY_BATCH_SIZE',
        'DEFAULT_DELIVERY_MAX_IN_FLIGHT',
        'DEFAULT_LISTENER_CONCURRENCY',
        'DEFAULT_MAX_BODY_BYTES',
        'DEFAULT_MAX_WORKERS',
        'DEFAULT_MIN_WORKERS',
        'DEFAULT_QUEUE_SIZE',
        'DEFAULT_REGISTRATION_ATTEMPTS',
        'DEFAULT_REGISTRATION_BACKOFF_MS',
        'DEFAULT_REGISTRATION_TIMEOUT_MS',
        'DEFAULT_SHUTDOWN_TIMEOUT_MS',
        'DeliveryRefusedError',
        'DeliveryTooLargeError',
        'DeliveryUnauthorizedError',
        'DEFAULT_SIGNATURE_TOLERANCE_SECONDS',
        'DispatcherRegistrationError',
        'HANDLER_MAX_PARAMETERS',
        'InvalidConsumerOptionsError',
        'InvalidDeliveryError',
        'InvalidListenerError',
        'LISTENER_CONSUMER_ID_MAX_LENGTH',
        'MAX_DELIVERY_BATCH_SIZE',
        'MAX_DELIVERY_MAX_IN_FLIGHT',
        'MAX_REPORTED_VIOLATIONS',
        'MMMQListener',
        'MMMQ_CONSUMER_OPTIONS',
        'MessageContext',
        'MmmqConsumerModule',
        'NonRetriableError',
        'PUSH_ORDER_WAIT_MS',
        'PushOutOfOrderError',
        'QueueFullError',
        'RETRY_AFTER_SECONDS',
      ].sort(),
    );
  });

  it('roots every error in MmmqError, so one instanceof check tells ours from the rest', () => {
    const { MmmqError } = jest.requireActual('@mmmq/core');
    for (const [name, value] of Object.entries(consumer)) {
      if (name.endsWith('Error')) expect((value as Function).prototype).toBeInstanceOf(MmmqError);
    }
  });
});
