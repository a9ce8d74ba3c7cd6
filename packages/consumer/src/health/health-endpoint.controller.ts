import { Controller, Get, Inject, Type } from '@nestjs/common';
import type * as Terminus from '@nestjs/terminus';
import { ConsumerEndpoint } from '../support/endpoint-route.check';
import { DEFAULT_CONSUMER_HEALTH_KEY, MmmqConsumerHealthIndicator } from './mmmq-consumer.health-indicator';

/** The probes' settings the controller needs. */
export interface HealthEndpointSettings {
  path: string;
  maxHandlerMs: number;
  maxQueueFullMs: number;
}

/**
 * `GET {path}/live` and `GET {path}/ready` (terminus bodies; 503 when down), as the broker's probes. Made per
 * application from the terminus module it loaded, since `@nestjs/terminus` is an optional peer dependency and a
 * controller's path is fixed when it is declared. No guard: probes carry no token.
 */
export function healthEndpointController(terminus: typeof Terminus, settings: HealthEndpointSettings): Type {
  const { path, maxHandlerMs, maxQueueFullMs } = settings;

  @Controller(path)
  @ConsumerEndpoint({ option: 'health', suggestedPath: 'health/consumer' })
  class MmmqConsumerHealthController {
    constructor(
      @Inject(terminus.HealthCheckService) private readonly checks: Terminus.HealthCheckService,
      @Inject(terminus.HealthIndicatorService) private readonly health: Terminus.HealthIndicatorService,
      @Inject(MmmqConsumerHealthIndicator) private readonly consumer: MmmqConsumerHealthIndicator,
    ) {}

    /** Up whenever the event loop runs this handler: a hung or crashed process does not answer at all. */
    @Get('live')
    @terminus.HealthCheck({ noCache: true, swaggerDocumentation: false })
    live(): Promise<Terminus.HealthCheckResult> {
      return this.checks.check([() => this.health.check('process').up()]);
    }

    /** Up once every listener is registered (or subscribed), while it receives and no handler is stuck. */
    @Get('ready')
    @terminus.HealthCheck({ noCache: true, swaggerDocumentation: false })
    ready(): Promise<Terminus.HealthCheckResult> {
      return this.checks.check([() => this.consumer.isHealthy(DEFAULT_CONSUMER_HEALTH_KEY, { maxHandlerMs, maxQueueFullMs })]);
    }
  }
  return MmmqConsumerHealthController;
}
