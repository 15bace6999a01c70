import net from 'node:net';
import { pingTemporal } from '../../../src/temporal/ping';
import { freePort } from '../../../src/util/net';

/**
 * `/health`'s Temporal probe (DescribeNamespace over plain HTTP/2, no SDK) against the suite's dev
 * server: it resolves for a namespace the server has, and fails for one it has not, for a port where
 * nothing listens and for a peer that never answers.
 */
describe('pingTemporal', () => {
  const address = () => process.env.TEMPORAL_ADDRESS!;

  it('resolves for the server’s default namespace', async () => {
    await expect(pingTemporal(address(), 'default')).resolves.toBeUndefined();
  });

  it('fails with the gRPC status for a namespace the server does not have (NOT_FOUND, 5)', async () => {
    await expect(pingTemporal(address(), 'no-such-namespace-é')).rejects.toThrow(/gRPC status 5/);
  });

  it('fails when nothing listens on the port', async () => {
    await expect(pingTemporal(`127.0.0.1:${await freePort()}`, 'default')).rejects.toThrow();
  });

  it('fails within its timeout when the peer accepts but never answers', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const started = Date.now();
      await expect(pingTemporal(`127.0.0.1:${port}`, 'default', 300)).rejects.toThrow(/no answer within 300 ms/);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      silent.close();
    }
  });
});
