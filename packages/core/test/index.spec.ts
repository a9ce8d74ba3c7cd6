import * as core from '../src';

describe('@mmmq/core public API', () => {
  it('exports exactly the agreed runtime names', () => {
    expect(Object.keys(core).sort()).toEqual(
      [
        'Acknowledgement',
        'CONSUMER_ID_HEADER',
        'CONSUMER_ID_MAX_LENGTH',
        'CONSUMER_ID_PATTERN',
        'HEADERS_MAX_COUNT',
        'HEADER_NAME_MAX_LENGTH',
        'HEADER_VALUE_MAX_LENGTH',
        'HOST_ADDRESS_MAX_LENGTH',
        'HOST_LABEL_MAX_LENGTH',
        'HOST_PORT_MAX',
        'HOST_PORT_MIN',
        'Host',
        'HostProtocol',
        'IN_MEMORY_MAX_NACK_RETRIES',
        'InMemoryBroker',
        'InvalidConsumerIdError',
        'InvalidHostError',
        'InvalidMessageError',
        'InvalidTopicError',
        'InvalidTopicPatternError',
        'MATCH_ALL_PATTERN',
        'MESSAGES_PATH',
        'MESSAGE_ID_MAX_LENGTH',
        'MmmqError',
        'MmmqTestingModule',
        'MmmqValidationError',
        'RESERVED_TOPIC_PREFIX',
        'TOPIC_NAME_MAX_LENGTH',
        'TOPIC_PATTERN_MAX_LENGTH',
        'TOPIC_SEGMENT_SEPARATOR',
        'Topic',
        'TopicPattern',
        'assertConsumerId',
        'assertHeaders',
        'assertMessageId',
        'isAcknowledgement',
        'isBrokerAcknowledgement',
        'isConsumerAcknowledgement',
      ].sort(),
    );
  });
});
