import { hello } from '@pag/contracts';
export const greet = (): string => hello('kit');
