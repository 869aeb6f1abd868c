// The generated contract lives here; SwiftPM needs one source file to build the target.
