export type { AppErrorOptions, ErrorCode } from './errors.ts';
export { AppError, ErrorBody, ErrorCatalogue, errorCodes, isErrorCode, toErrorBody } from './errors.ts';
