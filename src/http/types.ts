/** Hono environment shared by every route. The request's id and logger: `requestInfo(c.req.raw)`. */
// biome-ignore lint/complexity/noBannedTypes: Hono's Env with no bindings or variables.
export type AppEnv = {};
