import type { FastifyRequest } from 'fastify';

/**
 * How a request appears in the log: the path without its query. Signed artifact URLs carry
 * their signature in the query, and other queries may hold what users typed; neither belongs
 * in a log file.
 */
export const requestLogSerializers = {
  req(request: FastifyRequest) {
    const url = request.url ?? '';
    const query = url.indexOf('?');
    return {
      method: request.method,
      url: query === -1 ? url : url.slice(0, query),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    };
  },
};
