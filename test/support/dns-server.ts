import type { AddressInfo } from "node:net";
import dns2 from "dns2";

const { Packet } = dns2;

/**
 * A real DNS server on loopback (dns2) answering TXT records from `zone`: a name not there
 * answers NXDOMAIN, and `failing` makes every answer SERVFAIL. Verified domains' tests
 * point `organizations.dnsResolvers` at `resolver`.
 */
export async function startTxtServer() {
  const zone = new Map<string, string[]>();
  const state = { failing: false };
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const records = zone.get(question.name.toLowerCase());
      if (state.failing) response.header.rcode = Packet.RCODE.SERVFAIL;
      else if (!records) response.header.rcode = Packet.RCODE.NXDOMAIN;
      else
        for (const data of records)
          response.answers.push(
            Packet.createResourceFromQuestion(question, {
              type: Packet.TYPE.TXT,
              class: Packet.CLASS.IN,
              ttl: 1,
              data,
            }),
          );
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  const port = (server.addresses().udp as AddressInfo).port;
  return { zone, state, resolver: `127.0.0.1:${port}`, close: () => server.close() };
}
