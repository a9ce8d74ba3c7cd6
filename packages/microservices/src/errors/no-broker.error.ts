import { InvalidServerOptionsError } from './invalid-server-options.error';

/**
 * `new MmmqServer({...})` has no broker to receive from: neither `broker` nor `transport` is set, and the application
 * imports no `MmmqBrokerModule` whose broker it could receive from in process. Thrown when the microservice starts.
 */
export class NoBrokerError extends InvalidServerOptionsError {
  constructor() {
    super(
      'MmmqServer has no broker to receive from: broker is not set and this application does not import MmmqBrokerModule. ' +
        'Import MmmqBrokerModule.forRoot() in this application (the @EventPattern handlers then receive in process), or set ' +
        "broker to the MMMQ broker's URL (with advertisedUrl for pushes, or delivery: 'pull'), or set transport",
    );
  }
}
