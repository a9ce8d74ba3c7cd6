import * as consumer from '../src';

describe('@mmmq/consumer public API', () => {
  it('exports exactly the agreed runtime names', () => {
    expect(Object.keys(consumer).sort()).toEqual(
      [
        'ACK_MODES',
        'ACK_SEND_ATTEMPTS',
        'BrokerRequestError',
        'DEFAULT_ACK_MODE',
        'DEFAULT_DELIVERY_MODE',
        'DEFAULT_PULL_PREFETCH',
        'DEFAULT_PULL_WAIT_MS',
        'DUPS_OK_ACK_BATCH',
        'DUPS_OK_ACK_LINGER_MS',
        'LeaseLostError',
        'MAX_NACK_DELAY_MS',
        'MAX_PULL_ACK_TIMEOUT_MS',
        'MAX_PULL_PREFETCH',
        'MAX_PULL_WAIT_MS',
        'MIN_PULL_ACK_TIMEOUT_MS',
        'PULL_BACKOFF_INITIAL_MS',
        'PULL_BACKOFF_MAX_MS',
        'SettlementError',
        'ConsumerClosingError',
        'DEFAULT_DELIVERY_BATCH_SIZE',
        'DEFAULT_DELIVERY_MAX_IN_FLIGHT',
        'DEFAULT_LISTENER_CONCURRENCY',
        'DEFAULT_MAX_BODY_BYTES',
        'DEFAULT_MAX_HANDLER_MS',
        'DEFAULT_MAX_QUEUE_FULL_MS',
        'DEFAULT_MAX_WORKERS',
        'DEFAULT_MIN_WORKERS',
        'DEFAULT_QUEUE_SIZE',
        'DEFAULT_REGISTRATION_ATTEMPTS',
        'DEFAULT_REGISTRATION_BACKOFF_MS',
        'DEFAULT_REGISTRATION_FAIL_FAST',
        'DEFAULT_REGISTRATION_LEAVE_ON_SHUTDOWN',
        'DEFAULT_REGISTRATION_MAX_BACKOFF_MS',
        'DEFAULT_CONSUMER_HEALTH_KEY',
        'MmmqConsumerHealthIndicator',
        'HandlerAbandonedError',
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
        'MMMQ_CONTEXT_TYPE',
        'Payload',
        'Ctx',
        'MMMQ_CONSUMER_OPTIONS',
        'MessageContext',
        'MmmqConsumerModule',
        'NonRetriableError',
        'PUSH_ORDER_WAIT_MS',
        'PushOutOfOrderError',
        'QueueFullError',
        'RETRY_AFTER_SECONDS',
        'FileSystemObjectStore',
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
