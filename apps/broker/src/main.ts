import 'reflect-metadata';
import { startStandaloneBroker } from '@mmmq/cli';

// The standalone server, configured by the MMMQ_* variables; the same server `mmmq broker` runs.
void startStandaloneBroker(process.env);
