# sculpt_add_space(<target> FILES <a.space> ...) is defined by spacegen/ once the generator
# lands; this file is kept as the place the build looks it up.
