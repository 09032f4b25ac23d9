import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { registerClient } from "../../lib/domain/clients/admin";
import { GRANT_TYPES } from "../../lib/domain/clients/client";
import { ALL_PERMISSIONS } from "../../lib/domain/permissions";
import {
  measureRoundTrips,
  type RoundTripRow,
  seedSampleAccounts,
  seedSampleDevices,
} from "../../scripts/bench/round-trips";
import { FAST_SCRYPT } from "./fixtures";

/**
 * The bench's sweep (scripts/bench/round-trips.ts) against the gateway at `base`: an
 * application that may do everything, the sample accounts seeded, then every sample event
 * of every route.
 */
export async function sweepEverySample(base: string, client: { id: string; secret: string }): Promise<RoundTripRow[]> {
  await registerClient(
    services().clients,
    {
      clientId: client.id,
      secret: client.secret,
      scopes: [...ALL_PERMISSIONS],
      restPassword: client.secret,
      grantTypes: [...GRANT_TYPES],
    },
    true,
  );
  const values = await seedSampleAccounts(base, client, FAST_SCRYPT);
  return measureRoundTrips(base, values, {
    outboxFile: config().outboxFile,
    codeLength: config().settings.codes.length,
    reseed: seedSampleDevices,
  });
}
