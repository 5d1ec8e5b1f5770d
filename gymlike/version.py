"""gymlike's version, in a module of its own: the package and its `isaacgym` alias both read it
(the alias module must not import the package it is imported by)."""

VERSION = "0.1.0"
