import { OriginPolicy } from '../../src/security/origin-policy';
import { CrossOriginRequestError } from '../../src/security/security.errors';

describe('OriginPolicy', () => {
  const policy = new OriginPolicy(['https://console.example.com']);

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'post'])('refuses a %s from another origin, naming it', (method) => {
    expect(() => policy.check(method, { origin: 'http://evil.example' })).toThrow(CrossOriginRequestError);
    expect(() => policy.check(method, { origin: 'http://evil.example' })).toThrow(/"http:\/\/evil\.example".*http\.allowedOrigins/);
  });

  it.each(['null', 'http://127.0.0.1:8080', 'https://console.example.com.evil.example', 'http://console.example.com'])(
    'refuses the origin %s, which is not listed',
    (origin) => {
      expect(() => policy.check('POST', { origin })).toThrow(CrossOriginRequestError);
    },
  );

  it('lets a listed origin through, however its default port and case are written', () => {
    expect(() => policy.check('POST', { origin: 'https://console.example.com' })).not.toThrow();
    expect(() => policy.check('POST', { origin: 'https://CONSOLE.example.com:443' })).not.toThrow();
  });

  it("lets through the broker's own origin, which its caller derived from a Host served by name", () => {
    expect(() => policy.check('POST', { origin: 'http://127.0.0.1:8080' }, 'http://127.0.0.1:8080')).not.toThrow();
    expect(() => policy.check('DELETE', { origin: 'http://127.0.0.1:8081' }, 'http://127.0.0.1:8080')).toThrow(CrossOriginRequestError);
    expect(() => policy.check('PUT', { origin: 'https://127.0.0.1:8080' }, 'http://127.0.0.1:8080')).toThrow(CrossOriginRequestError);
  });

  it.each(['cross-site', 'same-site'])('refuses a request marked Sec-Fetch-Site: %s even without Origin', (site) => {
    expect(() => policy.check('POST', { 'sec-fetch-site': site })).toThrow(/Sec-Fetch-Site/);
  });

  it('lets through clients that are no browser page, and requests that change nothing', () => {
    expect(() => policy.check('POST', {})).not.toThrow();
    expect(() => policy.check('POST', { 'sec-fetch-site': 'same-origin' })).not.toThrow();
    expect(() => policy.check('POST', { 'sec-fetch-site': 'none' })).not.toThrow();
    expect(() => policy.check('GET', { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' })).not.toThrow();
  });
});
