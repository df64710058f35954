#!/usr/bin/env node
// reflect-metadata must be installed before any module that imports tsyringe is evaluated.
import 'reflect-metadata';
await import('../dist/bin.js');
