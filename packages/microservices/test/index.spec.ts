import * as microservices from '../src';

describe('@mmmq/microservices public API', () => {
  it('exports exactly the agreed runtime names', () => {
    expect(Object.keys(microservices).sort()).toEqual(
      [
        'ClientEventsNotSupportedError',
        'DEFAULT_PUSH_HOST',
        'HandlerFailedError',
        'InvalidServerOptionsError',
        'NoBrokerError',
        'MMMQ_TRANSPORT',
        'MmmqClient',
        'MmmqContext',
        'MmmqExceptionFilter',
        'MmmqNonRetriableException',
        'MmmqRecord',
        'MmmqRecordBuilder',
        'MmmqServer',
        'ServerEventsNotSupportedError',
        'UnsupportedPatternError',
        'describePatternHandlers',
      ].sort(),
    );
  });
});
