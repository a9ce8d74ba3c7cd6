import * as producer from '../src';

describe('@mmmq/producer public API', () => {
  it('exports exactly the agreed runtime names', () => {
    expect(Object.keys(producer).sort()).toEqual(
      [
        'BrokerResponseError',
        'BrokerUnreachableError',
        'DEFAULT_ASYNCAPI_PATH',
        'DEFAULT_ASYNCAPI_TITLE',
        'DEFAULT_ASYNCAPI_VERSION',
        'DEFAULT_BATCH_MAX_BYTES',
        'DEFAULT_BATCH_MAX_MESSAGES',
        'DEFAULT_MAX_RETRY_COUNT',
        'DEFAULT_MAX_RETRY_DELAY_MS',
        'DEFAULT_RETRY_DELAY_MS',
        'DEFAULT_STREAM_MAX_IN_FLIGHT',
        'DEFAULT_TIMEOUT_MS',
        'HTTP_MAX_SOCKETS',
        'InvalidProducerOptionsError',
        'MMMQ_PRODUCER_OPTIONS',
        'MessageRejectedError',
        'MmmqProducerModule',
        'ProduceError',
        'Producer',
        'ProducerClosedError',
        'RETRY_BACKOFF_MULTIPLIER',
        'RETRY_JITTER',
        'TransactionEndedError',
        'DEFAULT_CLAIM_CHECK_THRESHOLD_BYTES',
        'DEFAULT_CLAIM_CHECK_TTL_MS',
        'FileSystemObjectStore',
        'DEFAULT_REQUEST_TIMEOUT_MS',
        'REPLY_COLLECT_WAIT_MS',
        'REPLY_COLLECT_LINGER_MS',
        'RequestError',
        'RequestTimeoutError',
        'ReplyError',
        'RequestCancelledError',
        'RequestReplyUnavailableError',
      ].sort(),
    );
  });

  it('roots every error in MmmqError, so one instanceof check tells ours from the rest', () => {
    const { MmmqError } = jest.requireActual('@mmmq/core');
    for (const [name, value] of Object.entries(producer)) {
      if (name.endsWith('Error')) expect((value as Function).prototype).toBeInstanceOf(MmmqError);
    }
  });
});
