import { Controller, Get } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Charge } from './charge.entity';

@Controller('charges')
export class ChargesController {
  constructor(private readonly dataSource: DataSource) {}

  /** Every charge, oldest first: one per order, however often its message was delivered. */
  @Get()
  list(): Promise<Charge[]> {
    return this.dataSource.manager.find(Charge, { order: { id: 'ASC' } });
  }
}
