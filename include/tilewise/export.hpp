#pragma once
// What the shared library exports: the public API, marked with TILEWISE_API. Its internal layers build with hidden
// visibility, so nothing else of them (nor of the libraries they link) can clash with a program's own symbols.
#define TILEWISE_API __attribute__((visibility("default")))
