/** waveloop's HTTP API (`waveloop serve`): the app, the server, its tokens and listen address. */
export { createHttpApp, DEFAULT_MAX_BODY_BYTES, type HttpAppOptions } from './app';
export { startHttpServer, type HttpServer } from './server';
export { authenticate, generateToken } from './tokens';
export { DEFAULT_HTTP_ADDRESS, isLoopback, parseListenAddress } from './listen-address';
