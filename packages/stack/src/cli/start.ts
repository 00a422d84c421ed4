import { greet } from '@pag/kit';
console.log(greet(), process.version);
