#!/usr/bin/env node
// reflect-metadata is loaded by dist/bin.js before any module that imports tsyringe.
import '../dist/bin.js';
