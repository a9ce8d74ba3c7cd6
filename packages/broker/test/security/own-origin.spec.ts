import type { Socket } from 'node:net';
import { ownOrigin } from '../../src/security/own-origin';

describe('ownOrigin', () => {
  const request = (host: string | undefined, encrypted = false) => ({
    headers: host === undefined ? {} : { host },
    socket: { encrypted } as unknown as Socket,
  });

  it('is the scheme and Host of a request to an IP address, localhost or a listed name', () => {
    expect(ownOrigin(request('127.0.0.1:8080'), [])).toBe('http://127.0.0.1:8080');
    expect(ownOrigin(request('LOCALHOST:8080'), [])).toBe('http://localhost:8080');
    expect(ownOrigin(request('[::1]:8080'), [])).toBe('http://[::1]:8080');
    expect(ownOrigin(request('broker.internal:443', true), ['broker.internal'])).toBe('https://broker.internal');
  });

  it('is undefined for a name only "*" admits (a rebound domain would be its own origin), and without Host', () => {
    expect(ownOrigin(request('rebound.example:8080'), ['*'])).toBeUndefined();
    expect(ownOrigin(request('rebound.example:8080'), [])).toBeUndefined();
    expect(ownOrigin(request(undefined), [])).toBeUndefined();
    expect(ownOrigin(request('127.0.0.1:http'), [])).toBeUndefined();
  });
});
