import { Controller, Get, Type } from '@nestjs/common';
import { HealthCheck, HealthCheckResult, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { BrokerReadinessIndicator } from './broker-readiness.indicator';

/**
 * `GET {path}/live` and `GET {path}/ready` (terminus bodies; 503 when down). A class per path, since a
 * controller's path is fixed when it is declared. No guard: probes carry no token, and the answers hold nothing
 * but states and counts.
 */
export function healthController(path: string): Type {
  @Controller(path)
  class HealthController {
    constructor(
      private readonly checks: HealthCheckService,
      private readonly health: HealthIndicatorService,
      private readonly readiness: BrokerReadinessIndicator,
    ) {}

    /** Up whenever the event loop runs this handler: a hung or crashed process does not answer at all. */
    @Get('live')
    @HealthCheck({ noCache: true, swaggerDocumentation: false })
    live(): Promise<HealthCheckResult> {
      return this.checks.check([() => this.health.check('process').up()]);
    }

    /** Up once storage is recovered, while the disk guard lets publishes in and no topic refuses writes. */
    @Get('ready')
    @HealthCheck({ noCache: true, swaggerDocumentation: false })
    ready(): Promise<HealthCheckResult> {
      return this.checks.check([() => this.readiness.storage(), () => this.readiness.disk(), () => this.readiness.topicWrites()]);
    }
  }
  return HealthController;
}
