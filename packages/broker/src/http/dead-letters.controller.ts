import { MmmqValidationError } from '@mmmq/core';
import { Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Req, UseFilters, UseGuards } from '@nestjs/common';
import { DeadLetterPage, DeadLetterPurge, DeadLetterService } from '../dispatch/dead-letter-service';
import { pageRange } from '../topics/topic-browser';
import { parseConsumerId } from '../dispatch/dispatcher-definition';
import { RequestWithRawBody } from './raw-body.reader';
import { BrokerAccessGuard } from './broker-access.guard';
import { RequiresRole } from '../security/requires-role.decorator';
import { JsonBodyReader } from './json-body.reader';
import { NackExceptionFilter } from './nack-exception.filter';
import { ReadsRawBody } from './reads-raw-body.decorator';

/** Dead letters of a push consumer: list them, hand them back, purge them. */
@Controller('mmmq/dead-letters')
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('admin')
export class DeadLettersController {
  constructor(
    private readonly deadLetters: DeadLetterService,
    private readonly body: JsonBodyReader,
  ) {}

  @Get(':consumerId')
  list(@Param('consumerId') consumerId: string, @Query('from') from?: string, @Query('limit') limit?: string): Promise<DeadLetterPage> {
    const range = pageRange(from, limit);
    return this.deadLetters.list(parseConsumerId(consumerId), range.from, range.limit);
  }

  /** No body or `{}` redrives all dead letters, `{"ids":["…"]}` only those. */
  @Post(':consumerId/redrive')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async redrive(@Param('consumerId') consumerId: string, @Req() request: RequestWithRawBody): Promise<{ redriven: number }> {
    const id = parseConsumerId(consumerId);
    return { redriven: await this.deadLetters.redrive(id, redriveIds(await this.body.readIfPresent(request, {}))) };
  }

  /** No body or `{}` purges every dead letter there is, `{"before":N}` those at offsets below N. Durable when answered. */
  @Post(':consumerId/purge')
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async purge(@Param('consumerId') consumerId: string, @Req() request: RequestWithRawBody): Promise<DeadLetterPurge> {
    const id = parseConsumerId(consumerId);
    return this.deadLetters.purge(id, purgeBefore(await this.body.readIfPresent(request, {})));
  }
}

/** The `before` of a purge body, undefined for all; anything but an object with at most `before` is refused. */
function purgeBefore(body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new MmmqValidationError('The purge body must be a JSON object: {} for all dead letters, or {"before":N}');
  }
  const unknown = Object.keys(body).find((key) => key !== 'before');
  if (unknown !== undefined) {
    throw new MmmqValidationError(`Unknown field ${JSON.stringify(unknown)} in the purge body; the only one is before`);
  }
  const { before } = body as { before?: unknown };
  if (before !== undefined && !(Number.isSafeInteger(before) && (before as number) >= 0)) {
    throw new MmmqValidationError(`before must be a non-negative integer offset, got ${JSON.stringify(before)}`);
  }
  return before as number | undefined;
}

/**
 * The `ids` of a redrive body, undefined for all. Anything but an object with at most `ids` is refused: a body
 * meant for another route must not redrive everything by having no `ids`.
 */
function redriveIds(body: unknown): string[] | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new MmmqValidationError('The redrive body must be a JSON object: {} for all dead letters, or {"ids":["…"]}');
  }
  const unknown = Object.keys(body).find((key) => key !== 'ids');
  if (unknown !== undefined) {
    throw new MmmqValidationError(`Unknown field ${JSON.stringify(unknown)} in the redrive body; the only one is ids`);
  }
  const { ids } = body as { ids?: unknown };
  if (ids !== undefined && !(Array.isArray(ids) && ids.every((value) => typeof value === 'string'))) {
    throw new MmmqValidationError('ids must be an array of message ids');
  }
  return ids;
}
