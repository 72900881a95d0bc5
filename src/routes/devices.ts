import { createDeviceSchema, createdDeviceSchema } from "../access/schemas.ts";
import type { AccessService } from "../access/service.ts";
import { AppError } from "../errors.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import { requestInfoOf } from "../http/request-info.ts";

/**
 * `/api/devices`: an admin adds a device (a phone, a colleague's laptop) in one step: a key of its
 * own and a one-time login link for it, which the console shows with its QR code. The device never
 * sees the key: opening the link logs it in with a session of that key, and revoking the key ends it.
 */
export function createDevicesRoutes(deps: { access: AccessService; docs: ApiDocs }) {
  const { access } = deps;
  return documentedRoutes(deps.docs, "/api/devices", "Access").post(
    "/",
    {
      summary: "Add a device: a new key and a one-time login link for it",
      description:
        "Makes a key with the role asked (dictate unless admin is asked) and a one-time login code bound to it, which works once within 15 minutes. Opening `path` on svc's address (the console shows it as a link and a QR code) logs that browser in with a session of the new key: the key itself is never answered. Refused while keys are off (409 keys_off): every device may use svc then without a link.",
      body: createDeviceSchema,
      responses: {
        201: {
          description: "The device's key (never the key itself) and its login code",
          schema: createdDeviceSchema,
        },
      },
      errors: ["conflict", "keys_off"],
    },
    (c) => {
      const body = c.req.valid("json");
      // With keys off every device is already in, and a session made then ends when keys come on.
      if (access.mode() === "off") {
        throw new AppError(
          "keys_off",
          'Keys are off, so every device on your network can use svc without a link. Turn on "Require a key from other devices" on the Access screen first, then add the device.',
        );
      }
      const { info } = access.createKey(body.name, body.role);
      const { code, expiresAt } = access.createLoginCode(info.id);
      requestInfoOf(c)?.logger.info("device added", { key: info.name, role: info.role });
      return c.json(
        {
          name: info.name,
          role: info.role,
          createdAt: info.createdAt,
          lastUsedAt: info.lastUsedAt,
          madeWhileOff: info.madeWhileOff,
          code,
          expiresAt,
          path: `/login?code=${code}`,
        },
        201,
      );
    },
  );
}
