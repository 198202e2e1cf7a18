# scalify_warnings(TARGET): the project's warning set on one target; errors when SCALIFY_WERROR.
function(scalify_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wnon-virtual-dtor
                                           -Wimplicit-fallthrough)
  # Shadowed locals are bugs waiting to happen; GCC can limit the check to locals, clang cannot.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wshadow=local)
  else()
    target_compile_options(${target} PRIVATE -Wshadow)
  endif()
  if(SCALIFY_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
