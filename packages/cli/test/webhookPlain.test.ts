import { describe, expect, it } from 'vitest';
import { plainWebhookWarning } from '../src/run/notify.js';

// shell66: an alert (the agent's last error line, the task) posted over plain http:// to another
// machine crosses the network in clear, the URL's key with it: `run` says so, in one line.
describe('a webhook over plain http to another machine', () => {
  it.each([
    'http://hooks.example.com/T0/B0/key',
    'http://10.0.0.5:8080/alert',
    'http://192.168.1.20/hook',
    'http://127.0.0.1.example.com/hook',
    'http://[2001:db8::1]/hook',
  ])('%s is warned about, by its origin only', (url) => {
    const warning = plainWebhookWarning(url);
    expect(warning).toMatch(/^loopguard: warning: webhook http:\/\/[^ ]+\/… is plain http:/);
    expect(warning).not.toContain(new URL(url).pathname);
    expect(warning?.endsWith('\n')).toBe(true);
    expect(warning?.split('\n').length).toBe(2);
  });

  it.each([
    'https://hooks.slack.com/services/T0/B0/key',
    'http://127.0.0.1:8080/hook',
    'http://127.1.2.3/hook',
    'http://localhost:9000/hook',
    'http://[::1]:9000/hook',
  ])('%s is not', (url) => {
    expect(plainWebhookWarning(url)).toBeUndefined();
  });
});
