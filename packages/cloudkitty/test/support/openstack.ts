import {
  cloudKittyBehindKeystone,
  keystoneInstance,
  keystoneRest,
  SEED_PASSWORD,
  userToken,
  type SeededUser,
} from "../../../../apps/server/test/support/keystone.js";

export { SEED_PASSWORD };

// A Keystone of this package's own (its own directory and port, so its catalog is nobody else's)
// and the real CloudKitty 17 behind it, from ../shared/reference/openstack. Starting them, tokens
// and Keystone's REST come from the server's Keystone test support, which every Keystone test
// shares: a relative import, since that module imports nothing but Node's own.

export const KS_DIR = process.env.CK_CLIENT_KS_DIR ?? "/tmp/ks-ck-client";
export const KS_PORT = Number(process.env.CK_CLIENT_KS_PORT ?? 5931);
export const KS_URL = `http://127.0.0.1:${KS_PORT}`;
export const CK_KS_DIR = process.env.CK_CLIENT_CK_KS_DIR ?? "/tmp/ck-client-ks";
export const CK_KS_PORT = Number(process.env.CK_CLIENT_CK_KS_PORT ?? 8932);
export const CK_KS_URL = `http://127.0.0.1:${CK_KS_PORT}`;

// Seeded (the first start: about a minute) with its catalog's `rating` endpoints at CK_KS_URL.
const keystone = keystoneInstance(KS_DIR, KS_PORT, CK_KS_URL);
const cloudKitty = cloudKittyBehindKeystone({
  dir: CK_KS_DIR,
  port: CK_KS_PORT,
  keystoneUrl: KS_URL,
});

/** Keystone, and the CloudKitty (auth_strategy = keystone) its catalog points at, emptied. */
export async function startCloudKittyBehindKeystone(): Promise<void> {
  await keystone.start();
  await cloudKitty.start();
}

export async function stopCloudKittyBehindKeystone(): Promise<void> {
  await cloudKitty.stop();
  await keystone.stop();
}

/** A project-scoped token of a seeded user, and the user's id, straight from Keystone's REST. */
export async function passwordToken(
  username: SeededUser,
  project: string,
): Promise<{ token: string; userId: string }> {
  const issued = await userToken(username, { project, url: KS_URL });
  return { token: issued.token, userId: issued.body.token.user.id };
}

/** Keystone's REST as the bootstrap admin or a seeded user. */
export const keystoneRequest = keystoneRest(KS_URL);
