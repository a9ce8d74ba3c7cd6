import { Acknowledgement, TRANSACTIONS_PATH, TransactionResponse } from '@mmmq/core';
import { Controller, HttpCode, HttpStatus, Post, Req, UseFilters, UseGuards } from '@nestjs/common';
import { PublishRequestParser } from '../publish/publish-request.parser';
import { RawBodyReader, RequestWithRawBody } from './raw-body.reader';
import { BrokerAccessGuard } from './broker-access.guard';
import { Caller } from '../security/caller.decorator';
import { Principal } from '../security/principal';
import { RequiresRole } from '../security/requires-role.decorator';
import { parseTransactionRequest } from '../transactions/transaction-request';
import { TransactionService } from '../transactions/transaction.service';
import { NackExceptionFilter } from './nack-exception.filter';
import { ReadsRawBody } from './reads-raw-body.decorator';

/**
 * `POST /mmmq/transactions` (docs/http-api.md): settles a consumer's inputs and publishes its outputs in one commit.
 * It consumes and publishes, so the token needs both roles, may act for the consumer whose leases it settles, and
 * may publish to every output topic.
 */
@Controller(TRANSACTIONS_PATH)
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('consume')
export class TransactionsController {
  constructor(
    private readonly reader: RawBodyReader,
    private readonly parser: PublishRequestParser,
    private readonly transactions: TransactionService,
  ) {}

  @Post()
  @HttpCode(HttpStatus.OK)
  @ReadsRawBody()
  async commit(@Req() request: RequestWithRawBody, @Caller() caller: Principal): Promise<TransactionResponse> {
    const { fields, messages } = this.parser.parseEnvelope(await this.reader.read(request), 'A transaction', 0);
    const transaction = parseTransactionRequest(fields, messages);
    caller.assertMayActFor(transaction.consumerId);
    caller.assertMayPublish(messages.map((message) => message.topic));
    const { messages: published, settled } = await this.transactions.commit(transaction);
    return { acknowledgement: Acknowledgement.ACK, messages: published, settled };
  }
}
